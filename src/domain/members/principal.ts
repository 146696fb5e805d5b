// Who is behind a request that proved credentials: the actor the audit log names, the member
// (if any) and what they may do (./access.ts).
import type { MemberRole, TokenScope } from "../../shared/vocabulary";
import { type Capability, capabilitiesOf } from "./access";

export type ActorType = "member" | "token" | "key" | "operator";

export interface Actor {
  type: ActorType;
  id: string;
  name: string;
}

export interface Principal {
  actor: Actor;
  /** The member behind the session or token; null for the organization's own credentials. */
  memberId: string | null;
  /** null: the organization's own credentials (the API key and secret, its token), an owner's rights. */
  role: MemberRole | null;
  /** A token's scope; null for sessions and the key and secret. */
  scope: TokenScope | null;
  capabilities: ReadonlySet<Capability>;
}

export function principal(
  actor: Actor,
  memberId: string | null,
  role: MemberRole | null,
  scope: TokenScope | null,
): Principal {
  return { actor, memberId, role, scope, capabilities: capabilitiesOf(role, scope) };
}

/** The API key and secret, or a console session opened with them: the organization itself. */
export const keyPrincipal = (apiKey: string) =>
  principal({ type: "key", id: apiKey, name: "API key and secret" }, null, null, null);

export const OPERATOR_ACTOR: Actor = { type: "operator", id: "operator", name: "operator" };
