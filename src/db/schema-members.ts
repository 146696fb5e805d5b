// D1 schema of the people of an organization (docs/console.md "Members and roles"): members
// with a role, their invitations and recovery links (one-time, the database keeps only the
// link's SHA-256), their passkeys (public keys only), the one-time WebAuthn challenges, and the
// audit log of every write. Migration: 0030_members.sql (hand-written).
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { MEMBER_ROLES, MEMBER_STATUSES } from "../shared/vocabulary";
import { organizations } from "./schema";

export const members = sqliteTable(
  "members",
  {
    /** Random, public (mem_…). */
    id: text("id").primaryKey(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Lower-case; one member per email in an organization. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    status: text("status", { enum: MEMBER_STATUSES }).notNull().default("active"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("members_org_email_idx").on(t.organizationId, t.email),
    index("members_email_idx").on(t.email),
  ],
);

export type Member = typeof members.$inferSelect;

export const memberInvitations = sqliteTable(
  "member_invitations",
  {
    id: text("id").primaryKey(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** invitation: a new member; recovery: a new passkey for an existing member. */
    kind: text("kind", { enum: ["invitation", "recovery"] }).notNull(),
    email: text("email").notNull(),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    /** The member a recovery link is for. */
    memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
    /** SHA-256 (hex) of the link's secret. */
    tokenHash: text("token_hash").notNull().unique(),
    /** Who made it (the actor's name, as the audit log writes it). */
    invitedBy: text("invited_by").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    acceptedAt: text("accepted_at"),
  },
  (t) => [
    index("member_invitations_org_idx").on(t.organizationId, t.createdAt),
    index("member_invitations_expires_idx").on(t.expiresAt),
  ],
);

export type MemberInvitation = typeof memberInvitations.$inferSelect;

export const passkeys = sqliteTable(
  "passkeys",
  {
    /** The WebAuthn credential id (base64url). */
    id: text("id").primaryKey(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    /** The COSE public key (base64url). */
    publicKey: text("public_key").notNull(),
    /** COSE algorithm (-7 ES256, -257 RS256, -8 EdDSA). */
    algorithm: integer("algorithm").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports", { mode: "json" }).$type<string[]>().notNull().default([]),
    name: text("name").notNull(),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
  },
  (t) => [index("passkeys_member_idx").on(t.memberId)],
);

export type Passkey = typeof passkeys.$inferSelect;

/** One-time WebAuthn challenges: taken (deleted) by the answer that uses them. */
export const authChallenges = sqliteTable(
  "auth_challenges",
  {
    id: text("id").primaryKey(),
    /** base64url */
    challenge: text("challenge").notNull(),
    purpose: text("purpose", { enum: ["register", "sign-in"] }).notNull(),
    /** register: the invitation id or member id it is for. */
    subject: text("subject"),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("auth_challenges_expires_idx").on(t.expiresAt)],
);

export interface AuditChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    at: text("at").notNull(),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id").notNull(),
    actorName: text("actor_name").notNull(),
    /** The member behind the actor (their session or token), kept after removal for filtering. */
    memberId: text("member_id"),
    action: text("action").notNull(),
    objectType: text("object_type").notNull(),
    objectId: text("object_id"),
    changes: text("changes", { mode: "json" }).$type<AuditChange[]>().notNull().default([]),
    /** An address bucket (IPv4 /24, IPv6 /48), never the address. */
    address: text("address"),
  },
  (t) => [
    index("audit_log_org_idx").on(t.organizationId, t.id),
    index("audit_log_member_idx").on(t.organizationId, t.memberId, t.id),
    index("audit_log_object_idx").on(t.organizationId, t.objectType, t.objectId, t.id),
    index("audit_log_at_idx").on(t.at),
  ],
);

export type AuditRow = typeof auditLog.$inferSelect;
