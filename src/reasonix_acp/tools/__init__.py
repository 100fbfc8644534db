"""Tools offered to the model. Each has a name, a fixed JSON schema, an ACP tool kind and a run."""
