"""policyProof: proof that an AI execution was decided under the policy in force."""
