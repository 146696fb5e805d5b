// Members in the worker's tests: invitations accepted with a software authenticator
// (./authenticator.ts), sessions and the key and secret as the console and servers send them.
import { expect } from "vitest";
import { assert, register, type SoftCredential } from "./authenticator";
import { call, callJson, ORIGIN, type TestOrg, writeHeaders } from "./helpers";

export const ceremony = { origin: ORIGIN, rpId: "catalog.test" };

export interface Session {
  cookie: string;
  csrfToken: string;
  body: any;
}

export async function opened(res: Response): Promise<Session> {
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { cookie: res.headers.get("Set-Cookie")!.split(";")[0]!, csrfToken: body.csrfToken, body };
}

export const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: ORIGIN, ...headers },
    body: JSON.stringify(body),
  });

export function asSession(
  s: Session,
  path: string,
  init: { method?: string; body?: unknown } = {},
) {
  return callJson(path, {
    method: init.method ?? "GET",
    headers: {
      Cookie: s.cookie,
      "X-CSRF-Token": s.csrfToken,
      Origin: ORIGIN,
      ...(init.body !== undefined && { "Content-Type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

export const asKey = (org: TestOrg, path: string, method = "GET", body?: unknown) =>
  callJson(path, {
    method,
    headers: {
      ...writeHeaders(org),
      ...(body !== undefined && { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Invites `email` as `role` (with the key and secret) and accepts it with a new passkey. */
export async function inviteAndAccept(org: TestOrg, email: string, role: string, name: string) {
  const invited = await asKey(org, "/v2/members/invitations", "POST", { email, role });
  expect(invited.res.status, JSON.stringify(invited.body)).toBe(200);
  const token = new URL(invited.body.link).hash.split("/").at(-1)!;
  const lookup = await post("/v2/console/invitation", { token });
  const details = (await lookup.json()) as any;
  expect(lookup.status, JSON.stringify(details)).toBe(200);
  const { credential, response } = await register(details.options, ceremony);
  const session = await opened(
    await post("/v2/console/invitation/accept", {
      token,
      name,
      challengeId: details.challengeId,
      credential: response,
    }),
  );
  return { session, credential, token, invitation: invited.body };
}

export async function passkeySignIn(credential: SoftCredential) {
  const options = (await (await post("/v2/console/passkey/options", {})).json()) as any;
  return post("/v2/console/passkey", {
    challengeId: options.challengeId,
    credential: await assert(credential, options.options, ceremony),
  });
}
