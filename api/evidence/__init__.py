"""Evidence: documents attached to cases, their quality and links (NAMESPACES.md section 4)."""
