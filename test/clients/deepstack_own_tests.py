"""DeepStack's own integration tests of its face and detection APIs, request for request, for detectd.

Mirrors tests/face/test_face.py (at f620dc7) and tests/detection/test_objectdetection.py (at 9dbbf2d)
of johnolafenwa/DeepStack: the same `requests` calls (the same files, form fields and routes; the key
is `data={"api_key": API_KEY}`, None when TEST_API_KEY is unset, which is how a keyless server is
tested) and the same assertions, in the same order, each test reading what the earlier ones left as
pytest runs them. Their `time.sleep` pauses are left out: they wait for nothing detectd does later.
Their photos are not available here, so each is one of ../shared's, given by the caller:

  DEEPSTACK_TEST_PHOTOS='{"face_detection.jpg": ..., "adele1.jpg": ..., "adele2.jpg": ..., "obama1.jpg": ...,
                          "obama2.jpg": ..., "bradley.jpg": ..., "detection.jpg": ...}'

Usage: deepstack_own_tests.py BASE_URL [TEST_NAME ...]  (all of them, in DeepStack's order, when none are named)
Prints one JSON object per test, a line each: {"test", "requests", "passed", "failure"}.
"""
import json
import os
import sys
import traceback

import requests

DEEPSTACK_URL = sys.argv[1]
API_KEY = os.getenv("TEST_API_KEY")
PHOTOS = json.loads(os.environ["DEEPSTACK_TEST_PHOTOS"])


def photo(name):
    with open(PHOTOS[name], "rb") as file:
        return file.read()


def post(route, **fields):
    return requests.post(DEEPSTACK_URL + route, **fields)


def answered(response):
    """DeepStack's first assertion on every answer: 200, else the answer's error."""
    answer = response.json()
    assert response.status_code == 200, "Request failed with error: {}".format(answer["error"])
    assert answer["success"] == True
    return answer


def face_detection():
    answer = answered(post("/v1/vision/face", files={"image": photo("face_detection.jpg")}, data={"api_key": API_KEY}))
    assert len(answer["predictions"]) == 4, f"{len(answer['predictions'])} faces: {answer['predictions']}"


def face_register():
    fields = {"files": {"image": photo("adele1.jpg")}, "data": {"userid": "Adele", "api_key": API_KEY}}
    post("/v1/vision/face/register", **fields).json()
    answered(post("/v1/vision/face/register", **fields))


def face_recognize():
    answer = answered(post("/v1/vision/face/recognize", files={"image": photo("adele2.jpg")}, data={"api_key": API_KEY}))
    assert answer["predictions"][0]["userid"] == "Adele", answer["predictions"]
    answer = answered(post("/v1/vision/face/recognize", files={"image": photo("obama1.jpg")}, data={"api_key": API_KEY}))
    assert answer["predictions"][0]["userid"] == "unknown", answer["predictions"]


def face_match():
    first, same, other = photo("obama1.jpg"), photo("obama2.jpg"), photo("bradley.jpg")
    answer = answered(post("/v1/vision/face/match", files={"image1": first, "image2": same}, data={"api_key": API_KEY}))
    assert answer["similarity"] > 0.65, f"the same person: similarity {answer['similarity']}"
    answer = answered(post("/v1/vision/face/match", files={"image1": first, "image2": other}, data={"api_key": API_KEY}))
    assert answer["similarity"] < 0.55, f"two people: similarity {answer['similarity']}"


def face_list():
    answer = answered(post("/v1/vision/face/list", data={"api_key": API_KEY}))
    assert "Adele" in answer["faces"], answer["faces"]


def face_delete():
    # DeepStack's delete sends no key at all.
    answered(post("/v1/vision/face/delete", data={"userid": "Adele"}))


def face_recognize_after_delete():
    answer = answered(post("/v1/vision/face/recognize", files={"image": photo("adele2.jpg")}, data={"api_key": API_KEY}))
    assert answer["predictions"][0]["userid"] == "unknown", answer["predictions"]


def face_list_after_delete():
    answer = answered(post("/v1/vision/face/list", data={"api_key": API_KEY}))
    assert "Adele" not in answer["faces"], answer["faces"]


def object_detection():
    answer = answered(post("/v1/vision/detection", files={"image": photo("detection.jpg")}, data={"api_key": API_KEY}))
    assert len(answer["predictions"]) == 3, answer["predictions"]


# Named by file and function as in DeepStack's repository, in the order pytest runs them.
TESTS = {
    "test_face.py::test_detection": face_detection,
    "test_face.py::test_register": face_register,
    "test_face.py::test_recognize": face_recognize,
    "test_face.py::test_match": face_match,
    "test_face.py::test_list": face_list,
    "test_face.py::test_delete": face_delete,
    "test_face.py::test_recognize_after_delete": face_recognize_after_delete,
    "test_face.py::test_list_after_delete": face_list_after_delete,
    "test_objectdetection.py::test_detection": object_detection,
}


def main():
    for name in sys.argv[2:] or list(TESTS):
        try:
            TESTS[name]()
            result = {"passed": True}
        except Exception as error:  # an assertion, or what requests raised, fails the test as pytest would
            result = {"passed": False, "failure": "".join(traceback.format_exception_only(type(error), error)).strip()}
        print(json.dumps({"test": name, "requests": requests.__version__, **result}), flush=True)


main()
