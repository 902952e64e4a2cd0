"""Knowledge base as data (TOML), shipped as the package torchenv.recipes."""
