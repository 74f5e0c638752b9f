"""The requests deepstack-python's DeepstackFace sends, for tests against detectd's DeepStack face routes.

Mirrors deepstack/core.py of robmarkcole/deepstack-python (0.8-0.9, as Home Assistant's
deepstack_face integration uses it): `process_image` puts `api_key` and `min_confidence` (the
client's 0.45 default) into the form data and `post_image` sends
`requests.post(url, files={"image": image_bytes}, data=data, timeout=timeout)`; `register` adds
`userid`; `get_registered_faces` posts `data={"api_key": api_key}` (URL-encoded, no file) to
/v1/vision/face/list and returns `response["faces"]`. 200 returns the JSON; 404 raises "Bad url";
any other status raises "Error from Deepstack request"; a register answered with success false raises.

Usage: deepstack_face_request.py BASE_URL API_KEY detect|recognize IMAGE [IMAGE ...]
       deepstack_face_request.py BASE_URL API_KEY register NAME IMAGE [NAME IMAGE ...]
       deepstack_face_request.py BASE_URL API_KEY list
Prints one JSON object per call, a line each: {"status", "json", "result"} (what the client's method
returns) or {"error"} (what it raises). Several images are several calls of the one client, one after
another, as a camera integration makes them (and one Python start for all, which costs more than a call).
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


def call(vision, api_key, action, image_path=None, userid=None):
    """One call of the client's method; what it returns or raises, as one JSON object."""
    try:
        if action == "list":
            response = requests.post(vision + "/face/list", timeout=TIMEOUT, data={"api_key": api_key})
            result = response.json()["faces"]
        else:
            with open(image_path, "rb") as image:
                image_bytes = image.read()
            if action == "register":
                response = process_image(vision + "/face/register", image_bytes, api_key, {"userid": userid})
                answer = response.json()
                if answer["success"] is not True:
                    raise DeepstackException(f"Deepstack raised an error registering a face: {answer['error']}")
                result = answer["message"]
            else:
                path = "/face" if action == "detect" else "/face/recognize"
                response = process_image(vision + path, image_bytes, api_key, {})
                result = response.json()["predictions"]
        return {"status": response.status_code, "json": response.json(), "result": result}
    except DeepstackException as error:
        return {"error": str(error)}


def main():
    base_url, api_key, action = sys.argv[1:4]
    vision = base_url + "/v1/vision"
    if action == "list":
        answers = [call(vision, api_key, action)]
    elif action == "register":
        pairs = sys.argv[4:]
        answers = [call(vision, api_key, action, image_path, userid) for userid, image_path in zip(pairs[0::2], pairs[1::2])]
    else:
        answers = [call(vision, api_key, action, image_path) for image_path in sys.argv[4:]]
    for answer in answers:
        print(json.dumps(answer), flush=True)


main()
