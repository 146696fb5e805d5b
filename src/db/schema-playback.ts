// D1 schema of the playback signing keys (Drizzle; drizzle-kit generates their migration with
// the catalog's). An organization's server signs playback tokens with one of them; several may
// be active at once, so a rotation never breaks playback (docs/api.md "Signed playback").
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./schema";

export const PLAYBACK_KEY_ALGORITHMS = ["HS256", "RS256", "ES256"] as const;
export type PlaybackKeyAlgorithm = (typeof PLAYBACK_KEY_ALGORITHMS)[number];

export const playbackKeys = sqliteTable(
  "playback_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Public id, "pk_" + 20 letters or digits: the `kid` of the tokens' header. */
    keyId: text("key_id").notNull().unique(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    algorithm: text("algorithm", { enum: PLAYBACK_KEY_ALGORITHMS }).notNull(),
    /** HS256: the secret, sealed (shared/sealed.ts): verifying needs it, so it cannot be a hash. */
    secret: text("secret"),
    /** RS256/ES256: the organization's public key as a JWK (JSON text). */
    publicKey: text("public_key"),
    name: text("name").notNull().default(""),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("playback_keys_org_idx").on(t.organizationId)],
);
