"""agentWorkbench: reviewing what agents proposed and did (the queue of AI results waiting for a person, and replays)."""
