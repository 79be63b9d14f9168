"""Backends: display lists (`kitgen.display`) → files. `pdf` writes PDF with ReportLab; `png` rasterises it."""
