"""policyImpact.*: policy impact (generated skeleton: say here what the namespace is for)."""
