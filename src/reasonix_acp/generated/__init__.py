# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# and schema/vendor/*.json (sha256 fc1ddb3295e9c170456d7b93a2fa2cc7a31cb2dea7b4b08c1a309c6de5dce22a) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
"""Generator output only; see the header for how to regenerate."""
