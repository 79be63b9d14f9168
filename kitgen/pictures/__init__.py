"""Picture files, SVG drawings and emoji: found, checked and parsed into display-list items."""
