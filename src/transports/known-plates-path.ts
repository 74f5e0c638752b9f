/** Where a task's known plates are managed (TaskAbilities.knownPlates), beside its REST path; shared by the HTTP routes and the console page that calls them. */
export const knownPlatesPath = (taskType: string) => `/api/v1/${taskType}/known-plates`;
