// The interactive API reference: Swagger UI (served by this server from its node_modules) over
// this server's /openapi.json, with "try it" calling this server.
'use strict';

/** A key typed alone in "Authorize" is sent as the API documents it: `Authorization: ApiKey <key>`. */
function withKeyScheme(request) {
  const value = request.headers.Authorization;
  if (value && !/^(ApiKey|Bearer)\s/i.test(value.trim())) request.headers.Authorization = `ApiKey ${value.trim()}`;
  return request;
}

SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // Every operation opens ready to try: the form filled in, one click on Execute.
  tryItOutEnabled: true,
  // The badge would ask swagger.io to validate the document: detectd works offline.
  validatorUrl: null,
  requestInterceptor: withKeyScheme,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
});
