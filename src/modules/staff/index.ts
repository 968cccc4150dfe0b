/** The staff module's public interface: sessions for authentication, owners for the CLI and the seed, the maintenance purge. */
export { authenticateSession, createOwner, isSessionSecret, newPassword, purgeStaffLeftovers, SIGN_IN_WINDOW_SECONDS } from './service.js';
