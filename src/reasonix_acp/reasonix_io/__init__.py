"""The _reasonix.io vendor features: steer and inbox, status and its money, readiness, recovery."""
