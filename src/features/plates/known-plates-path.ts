/** Where a plate task's known plates are managed, beside its REST path; shared by its REST routes and its console card, which calls them. */
export const knownPlatesPath = (taskType: string) => `/api/v1/${taskType}/known-plates`;
