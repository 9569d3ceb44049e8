"""hospitalOnboarding: a hospital's onboarding request, from submission and review to provisioning and go-live."""
