// The time zone of every benchmark company's workplaces and schedules. A module of its own so that the
// request streams (scenarios.mjs) and their tests need nothing from the API's build.
export const ZONE = 'Europe/Berlin';
