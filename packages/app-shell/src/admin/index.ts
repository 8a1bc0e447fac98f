// `@retry-safe/app-shell/admin`: what an app gives the scenario routes (`/__config`, `/__requests`). Its runtime
// settings, the journal a unit of work that is not a request is recorded in, and the admin listener (tests read its
// port). Only what apps import is exported.
export { AdminListener } from './admin-listener.js';
export { Journal, preciseNow } from './request-journal.js';
export {
  RuntimeSettings,
  type RuntimeSettingsDefinition,
  type SettingsSnapshot,
} from './runtime-settings.js';
