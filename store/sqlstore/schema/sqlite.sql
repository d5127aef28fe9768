-- CosId tables for SQLite 3.35 and later.
create table if not exists {{.Range}} (
    range_key   text    not null primary key,
    next_value  integer not null,
    sealed      boolean not null default false
);
create table if not exists {{.Slot}} (
    namespace      text    not null,
    slot           integer not null,
    owner_key      text,
    incarnation    text,
    last_owner_key text,
    fence          integer not null default 0,
    expires_at     integer not null default 0,
    floor_ms       integer not null default 0,
    ceiling_ms     integer not null default 0,
    next_floor_ms  integer not null default 0,
    primary key (namespace, slot)
);
-- Acquire looks up the free slots an owner key had before (L5) in this index, and
-- takes them in slot order. SQLite names the schema on the index, not on the table.
create index if not exists {{schema .Slot}}{{indexName .Slot "last_owner"}} on {{table .Slot}} (namespace, last_owner_key, slot);
create table if not exists {{.Namespace}} (
    namespace    text    not null primary key,
    slot_limit   integer not null,
    tolerance_ms integer not null
);
