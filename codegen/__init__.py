"""Code generator: pinned ACP schema + schema/vendor → src/reasonix_acp/generated/."""
