// Per-request variables of the Hono app (set by middleware, read by handlers).
import type { TimingVariables } from "hono/timing";
import type { Config } from "../config";
import type { Db } from "../db/client";
import type { D1Meter } from "../db/metered-d1";
import type { OrganizationWithNetwork } from "../db/organizations";
import type { SubOrganization } from "../db/schema";
import type { Origins } from "../domain/deps";
import type { Principal } from "../domain/members/principal";
import type { ServedStream } from "../domain/streaming/served";
import type { Env } from "../env";
import type { DomainError } from "../shared/errors";
import { type Versions } from "../shared/versions";
import type { ErrorStyle } from "./errors";

export type AuthClass = "read" | "report" | "write";

export interface AuthContext {
  org: OrganizationWithNetwork;
  /** Set when the request carries X-Service-MMI-Key. */
  subOrg: SubOrganization | null;
  /** Which credentials the request proved. */
  via: AuthClass | "player";
  /** The reader's versions (shared/versions.ts), built once when the request authenticated. */
  versions?: Versions;
  /** Set when the console's session cookie authenticated the request (the hash of its token). */
  sessionTokenHash?: string;
  /**
   * Who is behind write credentials (a member's session or token, the API key and secret) and
   * what they may do (src/domain/members/access.ts); absent for the public sync code.
   */
  principal?: Principal;
}

export interface AppVariables extends TimingVariables {
  db: Db;
  meter: D1Meter;
  config: Config;
  errorStyle: ErrorStyle;
  /** Origins written into URLs in responses and files. */
  origins: Origins;
  auth: AuthContext;
  /**
   * Set by a handler whose answer is a copy of something that may change while it is read (an
   * R2 object): whether that source is still what the answer holds. The edge cache asks it once
   * it has stored the answer, and drops the copy if not (middleware/edge-cache.ts).
   */
  stillCurrent?: () => Promise<boolean>;
  /** The embed page's viewer is refused the video (middleware/embed-gates.ts): why. */
  refusal?: DomainError;
  /** The embed page's answer depends on the viewer (playback rights): not for shared caches. */
  playbackRestricted?: boolean;
  /** The stream a /hls/ URL names, its version checked once (middleware/servable.ts). */
  servedStream?: ServedStream;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
