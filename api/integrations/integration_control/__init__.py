"""integrationControl: integrations (clearinghouse, EHR, bank feed, SFTP drop) from draft to live, and their runs."""
