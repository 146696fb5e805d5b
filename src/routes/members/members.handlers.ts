import type { Context } from "hono";
import {
  changeMember,
  endMemberSessions,
  eraseMember,
  invite as inviteMember,
  openInvitations,
  organizationMembers,
  recoveryLink,
  removeMember,
  revokeInvitation as revokeLink,
  memberSessions as sessionsOfMember,
  setKeySignIn,
  signInOptions,
} from "../../domain/members/members";
import {
  removePasskey as deleteOwnPasskey,
  endOwnSession,
  memberBehind,
  newPasskeyOptions,
  ownPasskeys,
  ownSessions,
  addPasskey as registerPasskey,
} from "../../domain/members/sign-in";
import type { AppEnv } from "../../http/context";
import { requestDeps } from "../../http/deps";
import { mailerOf } from "../../http/mailer";
import type { AppRouteHandler } from "../../http/router";
import { forbidden } from "../../shared/errors";
import type * as routes from "./members.routes";

/** Members belong to the whole organization: a sub-organization's scope does not manage them. */
function organizationOf(c: Context<AppEnv>) {
  const { org, subOrg, principal } = c.get("auth");
  if (subOrg)
    throw forbidden("a sub-organization's scope cannot manage the organization's members");
  return { org, who: principal! };
}

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json({ members: await organizationMembers(requestDeps(c), organizationOf(c).org.id) }, 200);

export const invite: AppRouteHandler<typeof routes.invite> = async (c) => {
  const { org, who } = organizationOf(c);
  c.header("Cache-Control", "no-store");
  return c.json(
    await inviteMember(requestDeps(c), org, who, c.req.valid("json"), mailerOf(c)),
    200,
  );
};

export const invitations: AppRouteHandler<typeof routes.invitations> = async (c) =>
  c.json({ invitations: await openInvitations(requestDeps(c), organizationOf(c).org.id) }, 200);

export const revokeInvitation: AppRouteHandler<typeof routes.revokeInvitation> = async (c) =>
  c.json(await revokeLink(requestDeps(c), organizationOf(c).org.id, c.req.valid("query").id), 200);

export const change: AppRouteHandler<typeof routes.change> = async (c) => {
  const { org, who } = organizationOf(c);
  return c.json(
    await changeMember(requestDeps(c), org.id, who, c.req.valid("param").id, c.req.valid("json")),
    200,
  );
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { org, who } = organizationOf(c);
  return c.json(await removeMember(requestDeps(c), org.id, who, c.req.valid("param").id), 200);
};

export const erase: AppRouteHandler<typeof routes.erase> = async (c) => {
  const { org, who } = organizationOf(c);
  return c.json(await eraseMember(requestDeps(c), org.id, who, c.req.valid("param").id), 200);
};

export const recovery: AppRouteHandler<typeof routes.recovery> = async (c) => {
  const { org, who } = organizationOf(c);
  c.header("Cache-Control", "no-store");
  return c.json(
    await recoveryLink(requestDeps(c), org, who, c.req.valid("param").id, mailerOf(c)),
    200,
  );
};

export const memberSessions: AppRouteHandler<typeof routes.memberSessions> = async (c) =>
  c.json(
    {
      sessions: await sessionsOfMember(
        requestDeps(c),
        organizationOf(c).org.id,
        c.req.valid("param").id,
      ),
    },
    200,
  );

export const endSessionsOfMember: AppRouteHandler<typeof routes.endMemberSessions> = async (c) => {
  const { org, who } = organizationOf(c);
  return c.json(await endMemberSessions(requestDeps(c), org.id, who, c.req.valid("param").id), 200);
};

export const showSignIn: AppRouteHandler<typeof routes.showSignIn> = async (c) =>
  c.json(signInOptions(requestDeps(c), organizationOf(c).org), 200);

export const setSignIn: AppRouteHandler<typeof routes.setSignIn> = async (c) =>
  c.json(
    await setKeySignIn(requestDeps(c), organizationOf(c).org, c.req.valid("json").keySignIn),
    200,
  );

const member = (c: Context<AppEnv>) => memberBehind(requestDeps(c), c.get("auth").principal!);

export const passkeys: AppRouteHandler<typeof routes.passkeys> = async (c) =>
  c.json({ passkeys: await ownPasskeys(requestDeps(c), (await member(c)).id) }, 200);

export const passkeyOptions: AppRouteHandler<typeof routes.passkeyOptions> = async (c) => {
  c.header("Cache-Control", "no-store");
  return c.json(await newPasskeyOptions(requestDeps(c), await member(c)), 200);
};

export const addPasskey: AppRouteHandler<typeof routes.addPasskey> = async (c) =>
  c.json(await registerPasskey(requestDeps(c), await member(c), c.req.valid("json")), 200);

export const removePasskey: AppRouteHandler<typeof routes.removePasskey> = async (c) =>
  c.json(
    await deleteOwnPasskey(requestDeps(c), (await member(c)).id, c.req.valid("param").id),
    200,
  );

export const sessions: AppRouteHandler<typeof routes.sessions> = async (c) =>
  c.json(
    {
      sessions: await ownSessions(
        requestDeps(c),
        (await member(c)).id,
        c.get("auth").sessionTokenHash ?? "",
      ),
    },
    200,
  );

export const endSession: AppRouteHandler<typeof routes.endSession> = async (c) =>
  c.json(await endOwnSession(requestDeps(c), (await member(c)).id, c.req.valid("param").id), 200);
