"""Plugins: manifests and their command protocol, actions and hooks, extension surfaces."""
