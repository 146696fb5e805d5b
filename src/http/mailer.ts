// Invitation emails through the deployment's send_email binding (INVITE_MAIL, with its sender
// INVITE_MAIL_FROM); none without them (the link is in the answer, and printed in development).
import type { Context } from "hono";
import type { Mailer } from "../domain/members/members";
import type { AppEnv } from "./context";

export function mailerOf(c: Context<AppEnv>): Mailer | undefined {
  const binding = c.env.INVITE_MAIL;
  const from = c.get("config").inviteMailFrom;
  if (!binding || !from) return undefined;
  return async ({ to, subject, text }) => {
    await binding.send({ from, to, subject, text });
  };
}
