# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register


class BooleanPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: bool | None = None
    description: str | None = None
    title: str | None = None


class ElicitationPropertySchemaBoolean(BooleanPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["boolean"]


class ElicitationPropertySchemaOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: str


class EnumOption(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    const: str
    description: str | None = None
    title: str


class IntegerPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: int | None = None
    description: str | None = None
    maximum: int | None = None
    minimum: int | None = None
    title: str | None = None


class MultiSelectItemsOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: str


class NumberPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: float | None = None
    description: str | None = None
    maximum: float | None = None
    minimum: float | None = None
    title: str | None = None


class StringMultiSelectItems(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    enum: list[str]


class StringPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: str | None = None
    description: str | None = None
    enum: list[str] | None = None
    format: Literal["email", "uri", "date", "date-time"] | None = None
    max_length: Annotated[int | None, Field(alias="maxLength", ge=0)] = None
    min_length: Annotated[int | None, Field(alias="minLength", ge=0)] = None
    one_of: Annotated[list[EnumOption] | None, Field(alias="oneOf")] = None
    pattern: str | None = None
    title: str | None = None


class TitledMultiSelectItems(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    any_of: Annotated[list[EnumOption], Field(alias="anyOf")]


class ElicitationPropertySchemaString(StringPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["string"]


class ElicitationPropertySchemaNumber(NumberPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["number"]


class ElicitationPropertySchemaInteger(IntegerPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["integer"]


class MultiSelectItemsString(StringMultiSelectItems):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["string"]


class MultiSelectPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: list[str] | None = None
    description: str | None = None
    items: MultiSelectItemsString | MultiSelectItemsOther | TitledMultiSelectItems
    max_items: Annotated[int | None, Field(alias="maxItems", ge=0)] = None
    min_items: Annotated[int | None, Field(alias="minItems", ge=0)] = None
    title: str | None = None


class ElicitationPropertySchemaArray(MultiSelectPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["array"]


class ElicitationSchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str | None = None
    properties: Annotated[
        dict[
            str,
            ElicitationPropertySchemaString
            | ElicitationPropertySchemaNumber
            | ElicitationPropertySchemaInteger
            | ElicitationPropertySchemaBoolean
            | ElicitationPropertySchemaArray
            | ElicitationPropertySchemaOther,
        ]
        | None,
        Field(validate_default=True),
    ] = {}
    required: list[str] | None = None
    title: str | None = None
    type: Literal["object"] | None = "object"


LENIENT_FIELDS: dict[str, Any] = {
    "BooleanPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "ElicitationSchema": {
        "_meta": "default",
        "description": "default",
        "title": "default",
        "type": "default",
    },
    "EnumOption": {"_meta": "default", "description": "default"},
    "IntegerPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "MultiSelectPropertySchema": {
        "_meta": "default",
        "default": "skip_items",
        "description": "default",
        "title": "default",
    },
    "NumberPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "StringMultiSelectItems": {"_meta": "default"},
    "StringPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "TitledMultiSelectItems": {"_meta": "default"},
}

REJECT_TAGS: dict[str, Any] = {
    "ElicitationPropertySchemaOther": {
        "type": ["array", "boolean", "integer", "number", "string"]
    },
    "MultiSelectItemsOther": {"type": ["string"]},
}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
