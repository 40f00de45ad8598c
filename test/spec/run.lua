-- Runs the busted specs inside lbench's own runtime, so the specs see the
-- real `lbench` API (FFI bindings included):  lbench test/spec/run.lua
-- busted keeps its own environments: lift strict globals for the runner.
setmetatable(_G, nil)
arg = { "--output=TAP", "--pattern=_spec", "test/spec" }
require("busted.runner")({ standalone = false })
