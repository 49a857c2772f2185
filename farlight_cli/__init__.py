"""The `farlight` command line, at the top of the layers: it may use the env, agents and
training, which `farlight_env` itself never imports."""
