/**
 * @module http/http-application
 * The application as the HTTP layer and the routes see it (`ctx.app`, a middleware's `this.app`).
 * Declared here without members so that http/ and routing/ name no foundation module; the
 * foundation completes it by declaration merging (`interface HttpApplication extends Application`,
 * in foundation/application.ts), as features type the container's keys through `ContainerBindings`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface HttpApplication {}
