"""The Nvision Python SDK's exact requests, for detectd's compatibility tests.

Mirrors nipa-cloud/nvision-python, file nvision.py (the version whose predict() takes
output_visualized_image): the same base URL rule (the SDK's own `URL` environment variable,
default https://nvision.nipa.cloud/api/v1/, plus the service name), the same headers
('Content-Type: application/json; charset=utf-8', 'Authorization: ApiKey <key>') and the same
body: raw_data plus all three configurations, always, as str(float) and str(bool).lower().
There is no PyPI here, so the SDK is reproduced with `requests`, as the SDK itself posts.

Usage: API_KEY=<key> SERVER=http://127.0.0.1:<port> python3 nvision_python_shapes.py <image>
Prints one JSON line per call shape: {"path", "shape", "status", "body"}.
"""
import base64
import json
import os
import sys

import requests

SDK_HEADERS = {'Content-Type': 'application/json; charset=utf-8'}

# The SDK's base URL is its URL variable; apps on the legacy path point it at /api/.
BASE_URLS = {
    'v1': os.environ['SERVER'] + '/api/v1/',
    'legacy': os.environ['SERVER'] + '/api/',
}

# predict()'s keyword arguments, one call shape each.
CALL_SHAPES = {
    'defaults': {},
    'confidence_threshold=0.5': {'confidence_threshold': 0.5},
    'output_cropped_image=True': {'output_cropped_image': True},
    'output_visualized_image=True': {'output_visualized_image': True},
}


def predict(base_url, api_key, image, confidence_threshold=0.1, output_cropped_image=False, output_visualized_image=False):
    """ObjectDetection(api_key).predict(image, ...) of the SDK, request for request."""
    headers = dict(SDK_HEADERS)
    headers['Authorization'] = 'ApiKey {}'.format(api_key)
    data = {
        'raw_data': image,
        'configurations': [{
            'parameter': 'ConfidenceThreshold',
            'value': str(confidence_threshold)
        }, {
            'parameter': 'OutputCroppedImage',
            'value': str(output_cropped_image).lower()
        }, {
            'parameter': 'OutputVisualizedImage',
            'value': str(output_visualized_image).lower()
        }]
    }
    return requests.post(url=base_url + 'object-detection', headers=headers, data=json.dumps(data))


def main():
    with open(sys.argv[1], 'rb') as file:
        image = base64.b64encode(file.read()).decode('ascii')
    for path, base_url in BASE_URLS.items():
        for shape, arguments in CALL_SHAPES.items():
            response = predict(base_url, os.environ['API_KEY'], image, **arguments)
            print(json.dumps({'path': path, 'shape': shape, 'status': response.status_code, 'body': response.json()}))


if __name__ == '__main__':
    main()
