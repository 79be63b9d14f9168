"""kitgen: YAML classroom card activities → print-ready PDF kits at exact 100% scale."""

__version__ = "0.1.0"
