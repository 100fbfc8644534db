"""reasonix-acp: a coding agent for editors, over the Agent Client Protocol v1."""

__version__ = "0.1.0"
__all__ = ["__version__"]
