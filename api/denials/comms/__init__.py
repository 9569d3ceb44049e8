"""Outbound letters, faxes and portal messages on a denial case, sent through a transport and tracked to delivery."""
