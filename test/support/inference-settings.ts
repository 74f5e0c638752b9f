/**
 * The inference settings of the servers the tests start (in this process or as processes of their
 * own) and of the `detectd` commands they run: one inference worker of one thread per model. Test
 * files run side by side on two cores, so a model's second worker or thread only waits for a core,
 * while each worker costs its start (docs/development.md "What makes the suite slow"). A test about
 * these settings sets its own.
 */
export const TEST_INFERENCE_SETTINGS: Readonly<Record<string, string>> = { DETECTD_INFERENCE_THREADS: '1' };
