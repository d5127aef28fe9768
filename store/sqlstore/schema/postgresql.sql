-- CosId tables for PostgreSQL 15 and later.
create table if not exists {{.Range}} (
    range_key   varchar(255) not null primary key,
    next_value  bigint       not null,
    sealed      boolean      not null default false
);
create table if not exists {{.Slot}} (
    namespace      varchar(100) not null,
    slot           integer      not null,
    owner_key      varchar(255),
    incarnation    char(36),
    last_owner_key varchar(255),
    fence          bigint       not null default 0,
    expires_at     bigint       not null default 0,
    floor_ms       bigint       not null default 0,
    ceiling_ms     bigint       not null default 0,
    next_floor_ms  bigint       not null default 0,
    primary key (namespace, slot)
);
-- Acquire looks up the free slots an owner key had before (L5) in this index, and
-- takes them in slot order.
create index if not exists {{indexName .Slot "last_owner"}} on {{.Slot}} (namespace, last_owner_key, slot);
create table if not exists {{.Namespace}} (
    namespace    varchar(100) not null primary key,
    slot_limit   integer      not null,
    tolerance_ms bigint       not null
);
