"""Subscription billing of the organizations using the platform: the signed webhook and billing.*."""
