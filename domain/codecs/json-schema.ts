/**
 * Walks an io-ts codec and produces the JSON Schema (OpenAPI 3.1 dialect) it validates.
 * Named codecs become components referenced by $ref, so the document stays readable.
 */
import * as t from 'io-ts';
import { SchemaAnnotated } from './common';

export type JsonSchema = Record<string, unknown>;

type Tagged = t.Any & SchemaAnnotated & { _tag?: string; [key: string]: unknown };

export class SchemaRegistry {
  readonly components: Record<string, JsonSchema> = {};
  private readonly seen = new Map<t.Any, string>();

  /** Schema for a codec; codecs registered with `named` are emitted once as components. */
  schemaOf(codec: t.Any): JsonSchema {
    const name = this.seen.get(codec);
    if (name) return { $ref: `#/components/schemas/${name}` };
    return walk(codec as Tagged, this);
  }

  /** Emits `codec` as components/schemas/<name> and returns a $ref to it. */
  named(name: string, codec: t.Any): JsonSchema {
    const existing = this.seen.get(codec);
    if (existing) return { $ref: `#/components/schemas/${existing}` };
    this.seen.set(codec, name);
    this.components[name] = walk(codec as Tagged, this);
    return { $ref: `#/components/schemas/${name}` };
  }
}

function merge(base: JsonSchema, extra: Record<string, unknown> | undefined): JsonSchema {
  return extra ? { ...base, ...extra } : base;
}

function walk(codec: Tagged, registry: SchemaRegistry): JsonSchema {
  const extra = codec.jsonSchema;
  switch (codec._tag) {
    case 'StringType':
      return merge({ type: 'string' }, extra);
    case 'NumberType':
      return merge({ type: 'number' }, extra);
    case 'BooleanType':
      return merge({ type: 'boolean' }, extra);
    case 'NullType':
      return merge({ type: 'null' }, extra);
    case 'UnknownType':
    case 'AnyType':
      return merge({}, extra);
    case 'UnknownRecordType':
      return merge({ type: 'object' }, extra);
    case 'UnknownArrayType':
      return merge({ type: 'array' }, extra);
    case 'LiteralType':
      return merge({ const: (codec as unknown as t.LiteralC<string>).value }, extra);
    case 'KeyofType':
      return merge({ type: 'string', enum: Object.keys((codec as unknown as t.KeyofC<Record<string, unknown>>).keys) }, extra);
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return merge({ type: 'array', items: registry.schemaOf((codec as unknown as t.ArrayC<t.Mixed>).type) }, extra);
    case 'DictionaryType': {
      const dict = codec as unknown as t.RecordC<t.Mixed, t.Mixed>;
      return merge({ type: 'object', additionalProperties: registry.schemaOf(dict.codomain) }, extra);
    }
    case 'InterfaceType':
    case 'StrictType': {
      const props = (codec as unknown as t.TypeC<t.Props>).props;
      return merge({ type: 'object', properties: propsSchema(props, registry), required: Object.keys(props) }, extra);
    }
    case 'PartialType': {
      const props = (codec as unknown as t.PartialC<t.Props>).props;
      return merge({ type: 'object', properties: propsSchema(props, registry) }, extra);
    }
    case 'ExactType':
    case 'ReadonlyType':
      return merge(registry.schemaOf((codec as unknown as t.ExactC<t.HasProps>).type), extra);
    case 'IntersectionType': {
      const members = (codec as unknown as t.IntersectionC<[t.Mixed, t.Mixed]>).types.map((m) => registry.schemaOf(m));
      return merge(mergeObjects(members), extra);
    }
    case 'UnionType': {
      // Next to anyOf, `type` would bind every member: annotate(nullable(x), {type}) refuses null.
      if (extra && 'type' in extra) throw new Error(`${codec.name}: annotate the member of the union with 'type', not the union`);
      // `undefined` members only make a property optional; JSON has no such value.
      const types = (codec as unknown as t.UnionC<[t.Mixed, t.Mixed]>).types.filter((m) => !['UndefinedType', 'VoidType'].includes((m as Tagged)._tag ?? ''));
      const members = types.map((m) => registry.schemaOf(m));
      if (members.some((m) => Object.keys(m).length === 0)) return merge({}, extra); // one member accepts anything
      return merge(members.length === 1 ? members[0] : { anyOf: members }, extra);
    }
    case 'RefinementType':
      return merge(registry.schemaOf((codec as unknown as t.RefinementC<t.Mixed>).type), extra);
    case 'RecursiveType':
      return merge({ type: 'object' }, extra);
    default: {
      // Custom t.Type instances (see common.ts) describe themselves through jsonSchema,
      // on top of the codec they refine.
      const base = (codec as { refinedFrom?: t.Any }).refinedFrom;
      return merge(base ? registry.schemaOf(base) : {}, extra);
    }
  }
}

function propsSchema(props: t.Props, registry: SchemaRegistry): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [key, codec] of Object.entries(props)) out[key] = registry.schemaOf(codec);
  return out;
}

/** allOf of plain object schemas is flattened into one object (reads better in docs). */
function mergeObjects(members: JsonSchema[]): JsonSchema {
  if (!members.every((m) => m.type === 'object' && !m.$ref)) return { allOf: members };
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const m of members) {
    Object.assign(properties, m.properties ?? {});
    required.push(...((m.required as string[] | undefined) ?? []));
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}
