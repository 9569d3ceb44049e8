"""client_roi_portal.* procedures (served from the published mart snapshot)."""
