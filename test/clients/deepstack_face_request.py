"""The requests deepstack-python's DeepstackFace sends, for tests against detectd's DeepStack face routes.

Mirrors deepstack/core.py of robmarkcole/deepstack-python (0.8-0.9, as Home Assistant's
deepstack_face integration uses it): `process_image` puts `api_key` and `min_confidence` (the
client's 0.45 default) into the form data and `post_image` sends
`requests.post(url, files={"image": image_bytes}, data=data, timeout=timeout)`; `register` adds
`userid`; `get_registered_faces` posts `data={"api_key": api_key}` (URL-encoded, no file) to
/v1/vision/face/list and returns `response["faces"]`. 200 returns the JSON; 404 raises "Bad url";
any other status raises "Error from Deepstack request"; a register answered with success false raises.

Usage: deepstack_face_request.py BASE_URL API_KEY detect|recognize IMAGE
       deepstack_face_request.py BASE_URL API_KEY register NAME IMAGE
       deepstack_face_request.py BASE_URL API_KEY list
Prints one JSON object: {"status", "json", "result"} (what the client's method returns) or
{"status", "error"} (what it raises).
"""
import json
import os
import sys

import requests

HTTP_OK = 200
BAD_URL = 404
# deepstack-python's DEFAULT_TIMEOUT (10 s), or what DeepstackFace(..., timeout=X) was given (DEEPSTACK_TIMEOUT here).
TIMEOUT = float(os.environ.get("DEEPSTACK_TIMEOUT", "10"))
# deepstack-python's DEFAULT_MIN_CONFIDENCE, or what DeepstackFace(..., min_confidence=X) was given (DEEPSTACK_MIN_CONFIDENCE here).
MIN_CONFIDENCE = float(os.environ.get("DEEPSTACK_MIN_CONFIDENCE", "0.45"))


class DeepstackException(Exception):
    pass


def process_image(url, image_bytes, api_key, data):
    data["api_key"] = api_key
    data["min_confidence"] = MIN_CONFIDENCE
    response = requests.post(url, files={"image": image_bytes}, data=data, timeout=TIMEOUT)
    if response.status_code == HTTP_OK:
        return response
    if response.status_code == BAD_URL:
        raise DeepstackException(f"Bad url supplied, url {url} raised error {BAD_URL}")
    raise DeepstackException(f"Error from Deepstack request, status code: {response.status_code}")


def main():
    base_url, api_key, action = sys.argv[1:4]
    vision = base_url + "/v1/vision"
    response = None
    try:
        if action == "list":
            response = requests.post(vision + "/face/list", timeout=TIMEOUT, data={"api_key": api_key})
            result = response.json()["faces"]
        else:
            image_path = sys.argv[-1]
            with open(image_path, "rb") as image:
                image_bytes = image.read()
            if action == "register":
                response = process_image(vision + "/face/register", image_bytes, api_key, {"userid": sys.argv[4]})
                answer = response.json()
                if answer["success"] is not True:
                    raise DeepstackException(f"Deepstack raised an error registering a face: {answer['error']}")
                result = answer["message"]
            else:
                path = "/face" if action == "detect" else "/face/recognize"
                response = process_image(vision + path, image_bytes, api_key, {})
                result = response.json()["predictions"]
        print(json.dumps({"status": response.status_code, "json": response.json(), "result": result}))
    except DeepstackException as error:
        print(json.dumps({"error": str(error)}))


main()
