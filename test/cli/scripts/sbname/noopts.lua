-- Declares no options and no help().
function event() end
