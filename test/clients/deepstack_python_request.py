"""The request the deepstack-python client sends, for tests against detectd's DeepStack routes.

Mirrors deepstack/core.py of robmarkcole/deepstack-python (commit 06ca9152a0c4): `post_image`
inserts the key into the caller's form data (`data["api_key"] = api_key`) and posts
`requests.post(url, files={"image": image_bytes}, data=data, timeout=timeout)`; `process_image`
returns the JSON on 200, reports 404 as a bad URL and any other status as an error;
`DeepstackObject(custom_model=...)` picks `/v1/vision/custom/<model>` instead of
`/v1/vision/detection`, and `detect` returns `response["predictions"]`.

Usage: deepstack_python_request.py BASE_URL API_KEY IMAGE_PATH [MIN_CONFIDENCE|-] [CUSTOM_MODEL]
Prints one JSON object: {"status", "json"} (the server's answer) or {"status", "error"} (what
the client raises).
"""
import json
import sys

import requests

HTTP_OK = 200
BAD_URL = 404
TIMEOUT = 10  # seconds, deepstack-python's DEFAULT_TIMEOUT


def post_image(url, image_bytes, api_key, timeout, data):
    data["api_key"] = api_key
    return requests.post(url, files={"image": image_bytes}, data=data, timeout=timeout)


def main():
    base_url, api_key, image_path = sys.argv[1:4]
    min_confidence = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != "-" else None
    custom_model = sys.argv[5] if len(sys.argv) > 5 else ""
    url = base_url + "/v1/vision" + (f"/custom/{custom_model}" if custom_model else "/detection")
    data = {} if min_confidence is None else {"min_confidence": min_confidence}
    with open(image_path, "rb") as image:
        response = post_image(url, image.read(), api_key, TIMEOUT, data)
    if response.status_code == HTTP_OK:
        print(json.dumps({"status": response.status_code, "json": response.json()}))
    elif response.status_code == BAD_URL:
        print(json.dumps({"status": response.status_code, "error": f"Bad url supplied, url {url} raised error {BAD_URL}", "json": response.json()}))
    else:
        print(json.dumps({"status": response.status_code, "error": f"Error from Deepstack request, status code: {response.status_code}", "json": response.json()}))


main()
