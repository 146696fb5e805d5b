// D1 schema of the publisher console's sessions (docs/console.md "Security model"). The cookie
// carries a random token; the database keeps only its SHA-256, so a leaked table cannot be
// replayed. A session dies at expiresAt, on sign-out, and when the organization's credentials
// are rotated (every session but the one that rotated them).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { SIGN_IN_METHODS } from "../shared/vocabulary";
import { organizations, subOrganizations } from "./schema";
import { members } from "./schema-members";

export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    /** SHA-256 (hex) of the session token the cookie carries. */
    tokenHash: text("token_hash").primaryKey(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Set when the session was opened with an MMI key: it sees only that sub-organization. */
    subOrganizationId: integer("sub_organization_id").references(() => subOrganizations.id, {
      onDelete: "cascade",
    }),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    /** Public id (ses_…), to list and revoke a session without its token. Null on sessions opened before members existed. */
    id: text("id"),
    /** The member signed in; null for a sign-in with the API key and secret (the owner's rights). */
    memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
    method: text("method", { enum: SIGN_IN_METHODS }).notNull().default("key"),
    /** Address bucket of the sign-in (IPv4 /24, IPv6 /48). */
    address: text("address"),
  },
  (t) => [
    index("console_sessions_org_idx").on(t.organizationId),
    index("console_sessions_expires_idx").on(t.expiresAt),
    index("console_sessions_member_idx").on(t.memberId),
  ],
);

export type ConsoleSession = typeof consoleSessions.$inferSelect;
