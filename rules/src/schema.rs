//! JSON Schemas for the types with hand-written serde forms.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::{Move, PieceCounts, Rank, Square};

impl JsonSchema for Square {
    fn schema_name() -> Cow<'static, str> {
        "Square".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A square: file letter a-o, rank 1-15, like \"e4\".",
            "pattern": "^[a-o](1[0-5]|[1-9])$"
        })
    }
}

impl JsonSchema for Move {
    fn schema_name() -> Cow<'static, str> {
        "Move".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A move: from and to squares joined by '-', like \"e4-e5\".",
            "pattern": "^[a-o](1[0-5]|[1-9])-[a-o](1[0-5]|[1-9])$"
        })
    }
}

impl JsonSchema for Rank {
    fn schema_name() -> Cow<'static, str> {
        "Rank".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Rank::ALL.iter().map(|r| r.name()).collect();
        json_schema!({
            "type": "string",
            "description": "A piece kind (new numbering: marshal 10 ... spy 1).",
            "enum": names
        })
    }
}

impl JsonSchema for PieceCounts {
    fn schema_name() -> Cow<'static, str> {
        "PieceCounts".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let rank = generator.subschema_for::<Rank>();
        json_schema!({
            "type": "object",
            "description": "Number of pieces of each kind; kinds not listed have none.",
            "propertyNames": rank,
            "additionalProperties": {"type": "integer", "minimum": 0}
        })
    }
}
