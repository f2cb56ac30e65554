/** The Service API domain layer: plain functions over a ServiceClient, for the Slack side. */
export * from './common.js';
export * from './drm-data.js';
export * from './fpscert.js';
export * from './members.js';
export * from './pem-key.js';
export * from './plan.js';
export * from './settings.js';
export * from './sites.js';
export * from './stats.js';
