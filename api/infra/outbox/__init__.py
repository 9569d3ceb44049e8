"""Mail that must leave the platform (invitations): written in the caller's transaction, delivered after it commits."""
