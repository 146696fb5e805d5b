import { createRouter } from "../../http/router";
import * as handlers from "./members.handlers";
import * as routes from "./members.routes";

// Static paths before the ones with an {id} at the same place.
export default createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.invite, handlers.invite)
  .openapi(routes.invitations, handlers.invitations)
  .openapi(routes.revokeInvitation, handlers.revokeInvitation)
  .openapi(routes.change, handlers.change)
  .openapi(routes.remove, handlers.remove)
  .openapi(routes.erase, handlers.erase)
  .openapi(routes.recovery, handlers.recovery)
  .openapi(routes.memberSessions, handlers.memberSessions)
  .openapi(routes.endMemberSessions, handlers.endSessionsOfMember)
  .openapi(routes.showSignIn, handlers.showSignIn)
  .openapi(routes.setSignIn, handlers.setSignIn)
  .openapi(routes.passkeys, handlers.passkeys)
  .openapi(routes.passkeyOptions, handlers.passkeyOptions)
  .openapi(routes.addPasskey, handlers.addPasskey)
  .openapi(routes.removePasskey, handlers.removePasskey)
  .openapi(routes.sessions, handlers.sessions)
  .openapi(routes.endSession, handlers.endSession);
