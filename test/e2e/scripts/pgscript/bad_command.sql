\nosuch 1
