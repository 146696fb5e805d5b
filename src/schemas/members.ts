// zod schemas of members, invitations, passkeys, sessions, API tokens and the audit log
// (docs/api.md "Members and roles", "API tokens", "Audit log").
import { z } from "@hono/zod-openapi";
import { MEMBER_ROLES, MEMBER_STATUSES, SIGN_IN_METHODS, TOKEN_SCOPES } from "../shared/vocabulary";
import { required, text } from "./common";

const role = z
  .enum(MEMBER_ROLES, { error: `must be one of ${MEMBER_ROLES.join(", ")}` })
  .openapi({ description: "owner, admin, editor or analyst (docs/api.md: the roles matrix)" });
const email = z
  .string(required("an email address"))
  .max(254, "must be at most 254 characters")
  .pipe(z.email("must be an email address"));
const name = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters");
const id = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9]{1,40}$`), `must be an id (${prefix}_…)`);

export const memberIdParams = z.object({ id: id("mem") });
export const invitationIdParams = z.object({
  id: id("inv").openapi({ description: "The invitation's id" }),
});
export const sessionIdParams = z.object({ id: id("ses") });
export const tokenIdParams = z.object({
  id: z.string().regex(/^tok_\d{1,15}$/, "must be a token id (tok_…)"),
});
export const passkeyIdParams = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,1400}$/, "must be a passkey id (base64url)"),
});

export const member = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(MEMBER_ROLES),
    status: z.enum(MEMBER_STATUSES),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Member");

export const invitationBody = z.strictObject({ email, role }).openapi("InvitationRequest");

export const invitation = z
  .object({
    id: z.string(),
    kind: z.enum(["invitation", "recovery"]),
    email: z.string(),
    role: z.enum(MEMBER_ROLES),
    invitedBy: z.string(),
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .openapi("Invitation");

export const invitationLink = invitation
  .extend({
    link: z.string().openapi({
      description:
        "The one-time link (shown once): whoever opens it registers a passkey and becomes the member",
    }),
    emailed: z.boolean().openapi({ description: "Sent by email (a deployment with INVITE_MAIL)" }),
  })
  .openapi("InvitationLink");

export const memberChangeBody = z
  .strictObject({
    name: name.optional(),
    role: role.optional(),
    status: z
      .enum(MEMBER_STATUSES, { error: `must be one of ${MEMBER_STATUSES.join(", ")}` })
      .optional()
      .openapi({ description: "suspended: signed out at once, their tokens refused" }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "give name, role or status" })
  .openapi("MemberChange");

export const signInOptions = z
  .object({
    keySignIn: z.boolean().openapi({
      description: "The console accepts the API key and secret (the owner's rights)",
    }),
    passkeys: z.boolean(),
    access: z.boolean().openapi({ description: "Cloudflare Access single sign-on is configured" }),
  })
  .openapi("SignInOptions");

export const signInOptionsBody = z.strictObject({ keySignIn: z.boolean(required("a boolean")) });

export const sessionInfo = z
  .object({
    id: z.string().nullable(),
    method: z.enum(SIGN_IN_METHODS),
    address: z.string().nullable().openapi({ description: "Address bucket of the sign-in" }),
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .openapi("SessionInfo");

export const ownSession = sessionInfo
  .extend({ current: z.boolean().openapi({ description: "The session asking" }) })
  .openapi("OwnSession");

export const passkey = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi("Passkey");

/** A browser's PublicKeyCredential as JSON (toJSON(), or @simplewebauthn/browser). */
const b64url = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(/^[A-Za-z0-9_-]*={0,2}$/, "must be base64url");

export const registrationCredential = z
  .object({
    id: b64url(1400),
    rawId: b64url(1400).optional(),
    type: z.literal("public-key", "must be public-key"),
    response: z.object({
      clientDataJSON: b64url(10_000),
      attestationObject: b64url(60_000),
      transports: z.array(z.string().max(20)).max(10).optional(),
    }),
  })
  .openapi("PasskeyRegistration");

export const authenticationCredential = z
  .object({
    id: b64url(1400),
    rawId: b64url(1400).optional(),
    type: z.literal("public-key", "must be public-key"),
    response: z.object({
      clientDataJSON: b64url(10_000),
      authenticatorData: b64url(10_000),
      signature: b64url(2000),
      userHandle: b64url(200).nullable().optional(),
    }),
  })
  .openapi("PasskeyAssertion");

const challengeId = z
  .string()
  .regex(/^chl_[A-Za-z0-9]{20}$/, "must be the challengeId given with the options");

export const creationOptions = z
  .object({ challengeId: z.string(), options: z.record(z.string(), z.unknown()) })
  .openapi("PasskeyCreationOptions");

export const newPasskeyBody = z.strictObject({
  challengeId,
  credential: registrationCredential,
  name: name.optional(),
});

export const passkeySignInBody = z.strictObject({
  challengeId,
  credential: authenticationCredential,
});

const linkToken = z
  .string(required("the link's token"))
  .regex(/^[A-Za-z0-9_-]{20,100}$/, "must be the token of an invitation or recovery link");

export const invitationLookupBody = z.strictObject({ token: linkToken });

export const invitationDetails = z
  .object({
    kind: z.enum(["invitation", "recovery"]),
    organization: z.object({ name: z.string(), organizationKey: z.string() }),
    email: z.string(),
    role: z.enum(MEMBER_ROLES),
    name: z.string().nullable(),
    expiresAt: z.string(),
    challengeId: z.string(),
    options: z.record(z.string(), z.unknown()),
  })
  .openapi("InvitationDetails");

export const invitationAcceptBody = z.strictObject({
  token: linkToken,
  name: name.optional().openapi({ description: "Your name (a new member)" }),
  passkeyName: name.optional(),
  challengeId,
  credential: registrationCredential,
});

export const accessSignInBody = z.strictObject({
  organizationKey: text(200)
    .optional()
    .openapi({ description: "When the email is a member of several organizations" }),
});

// API tokens

export const tokenCreateBody = z
  .strictObject({
    name: name.openapi({ description: "What it is for" }),
    scope: z
      .enum(TOKEN_SCOPES, { error: `must be one of ${TOKEN_SCOPES.join(", ")}` })
      .openapi({ description: "read, content, reports or full (the creator's rights)" }),
    expiresIn: z
      .number(required("a number of seconds"))
      .int("must be a whole number of seconds")
      .min(60, "must be at least 60 seconds")
      .max(366 * 86_400, "must be at most 31622400 seconds (366 days)")
      .openapi({ description: "Seconds until it stops working" }),
  })
  .openapi("TokenRequest");

export const apiToken = z
  .object({
    id: z.string(),
    name: z.string(),
    scope: z.enum(TOKEN_SCOPES),
    kind: z.enum(["organization", "member", "application"]),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
  })
  .openapi("ApiToken");

export const apiTokenWithSecret = apiToken
  .extend({
    token: z.string().openapi({
      description: "The secret, shown in this answer only: send as Authorization: Bearer <token>",
    }),
  })
  .openapi("ApiTokenCreated");

// The audit log

const isoTime = z
  .string()
  .max(40)
  .refine((v) => !Number.isNaN(Date.parse(v)), "must be an ISO 8601 time")
  .transform((v) => new Date(v).toISOString());

export const auditQuery = z.object({
  member: z.string().max(60).optional().openapi({ description: "A member's id: what they did" }),
  objectType: z
    .string()
    .max(60)
    .optional()
    .openapi({ description: "e.g. content, feeds, members" }),
  objectId: z.string().max(200).optional(),
  action: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'The route, e.g. "PUT /v2/content"' }),
  from: isoTime.optional(),
  to: isoTime.optional(),
  cursor: z.string().max(20).optional().openapi({ description: "nextCursor of the previous page" }),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(200, "must be at most 200")
    .default(50),
});

export const auditPage = z
  .object({
    entries: z.array(
      z.object({
        id: z.string(),
        at: z.string(),
        actor: z.object({
          type: z.string().openapi({ description: "member, token, key or operator" }),
          id: z.string(),
          name: z.string(),
          memberId: z.string().nullable(),
        }),
        action: z.string(),
        object: z.object({ type: z.string(), id: z.string().nullable() }),
        changes: z.array(
          z.object({
            field: z.string(),
            before: z.unknown().optional(),
            after: z.unknown().optional(),
          }),
        ),
        address: z.string().nullable(),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .openapi("AuditPage");
