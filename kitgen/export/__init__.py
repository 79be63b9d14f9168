"""Exporters: display lists → bytes (PDF, PNG, cutter files). No file system, no CLI options."""
