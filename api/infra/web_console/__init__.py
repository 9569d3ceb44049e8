"""The web console's static build (console/dist), served at `/`."""
