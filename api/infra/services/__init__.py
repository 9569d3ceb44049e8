"""The services container every call receives (`container.Services`)."""
