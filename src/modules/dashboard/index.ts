/** The dashboard module serves the built web app; nothing else uses it. */
export { DASHBOARD_CSP } from './routes.js';
