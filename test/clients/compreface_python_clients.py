"""Viseron's and Home Assistant's CompreFace clients, request for request, for tests against detectd's CompreFace door.

Both call CompreFace through exadel-inc/compreface-python-sdk, whose requests are reproduced here with
`requests` (the SDK's requests_toolbelt MultipartEncoder sends the same body: one `file` field, named
`image.jpg` when it is given bytes, without a Content-Type of its own):
 - an image call's URL is the route, then "?", then "&NAME=VALUE" for each option in the options' order,
   the value as Python's str() writes it (so a boolean goes as `True` / `False`), e.g.
   `/api/v1/recognition/recognize?&limit=0&det_prob_threshold=0.8&prediction_count=1&status=False`;
 - add: `/api/v1/recognition/faces?subject=NAME` (unescaped), then "&NAME=VALUE" per option;
 - delete_all(subject): DELETE `/api/v1/recognition/faces?subject=NAME`;
 - subjects: /api/v1/recognition/subjects[/NAME], each with Content-Type: application/json;
 - every call returns `response.json()`, whatever the status.

Viseron (viseron/components/compreface/face_recognition.py):
 - CompreFace(domain="http://HOST", port="PORT", options={limit, det_prob_threshold, prediction_count,
   status}, plus face_plugins when set): its defaults 0, 0.8, 1, False (VISERON_FACE_PLUGINS sets them here);
 - train: for each person's folder but `unknown`: delete_all(person), then add(JPEG bytes, person) for each
   image; an answer with "message" is logged as an image not suitable for training;
 - face recognition: recognize(JPEG bytes of the person's crop); no "result" in the answer: nothing; for
   each result, subject = result["subjects"][0]: a known face when its similarity reaches
   similarity_threshold (default 0.5), else an unknown face;
 - use_subjects: get_subjects().list(); an answer without "subjects" is logged as an error.

Home Assistant's CompreFace component (racelandshop/ai_dashboard_compreface,
custom_components/ai_dashboard/image_processing.py):
 - CompreFace(ip_address, port) without options: the recognition service on the recognition key, the
   detection service on the detection key;
 - process_image: detect(image) when detect_only, else recognize(image); the message "No face is found
   in the given image": no faces; else answer["result"], each face named after its subject of highest
   similarity above 0 ("" when none is above 0; "unknown" when subjects is empty, which CompreFace and
   detectd never answer), its confidence that similarity, 0 when none is above 0 (the box's probability
   when detect_only) x 100; matched: faces named other than "unknown" at or above min_confidence;
 - teach(name, images): detect each image and count len(answer.get("result", [])); add (subject=name)
   the images with exactly one face; none: NoUsablePhotoException;
 - get_stored_faces: subjects.list()["subjects"]; delete_stored_faces(name): subjects.delete(name).

Usage: compreface_python_clients.py HOST PORT COMMAND ARGS..., where COMMAND ARGS is one of
  sdk-calls KEY PHOTO OTHER_PHOTO_OF_THE_SAME_PERSON   (each call of the SDK, image paths as given)
  viseron-train KEY FOLDER
  viseron-recognize KEY SIMILARITY_THRESHOLD IMAGE [IMAGE ...]
  viseron-subjects KEY
  ha-process RECOGNITION_KEY DETECTION_KEY recognize|detect MIN_CONFIDENCE IMAGE [IMAGE ...]
  ha-teach RECOGNITION_KEY DETECTION_KEY NAME IMAGE [IMAGE ...]
  ha-list RECOGNITION_KEY
  ha-delete RECOGNITION_KEY NAME
Prints one JSON object a line: what the client made of each call, or {"error"} with what it raised.
"""
import json
import os
import sys

import requests

NO_FACE_MESSAGE = "No face is found in the given image"


class Sdk:
    """compreface-python-sdk's requests, as its clients' classes send them."""

    def __init__(self, domain, port, api_key, options=None):
        self.base = domain + ":" + port
        self.api_key = api_key
        self.options = options or {}

    def _image_call(self, route, images, options, query=""):
        url = self.base + route + query
        for key, value in options.items():
            url += "&" + key + "=" + str(value)
        files = {field: file_part(image) for field, image in images.items()}
        return requests.post(url, files=files, headers={"x-api-key": self.api_key}).json()

    def recognize(self, image):
        return self._image_call("/api/v1/recognition/recognize", {"file": image}, self.options, "?")

    def detect(self, image):
        detect_options = {key: value for key, value in self.options.items() if key in ("det_prob_threshold", "limit", "status", "face_plugins")}
        return self._image_call("/api/v1/detection/detect", {"file": image}, detect_options, "?")

    def add(self, image, subject):
        return self._image_call("/api/v1/recognition/faces", {"file": image}, {}, "?subject=" + subject)

    def verify_example(self, image, image_id):
        return self._image_call("/api/v1/recognition/faces/" + image_id + "/verify", {"file": image}, self.options, "?")

    def verify(self, source_image, target_image):
        return self._image_call("/api/v1/verification/verify", {"source_image": source_image, "target_image": target_image}, self.options, "?")

    def list_examples(self):
        return requests.get(self.base + "/api/v1/recognition/faces", headers={"x-api-key": self.api_key}).json()

    def delete_example(self, image_id):
        return requests.delete(self.base + "/api/v1/recognition/faces/" + image_id, headers={"x-api-key": self.api_key}).json()

    def delete_all(self, subject):
        url = self.base + "/api/v1/recognition/faces?subject=" + subject
        return requests.delete(url, headers={"x-api-key": self.api_key}).json()

    def _subjects_headers(self):
        return {"Content-Type": "application/json", "x-api-key": self.api_key}

    def list_subjects(self):
        return requests.get(self.base + "/api/v1/recognition/subjects", headers=self._subjects_headers()).json()

    def add_subject(self, subject):
        return requests.post(self.base + "/api/v1/recognition/subjects", data=json.dumps({"subject": subject}), headers=self._subjects_headers()).json()

    def update_subject(self, subject, new_name):
        # UpdateSubject.Request(subject=new_name, api_endpoint=subject), sent whole as the body.
        body = json.dumps({"subject": new_name, "api_endpoint": subject})
        return requests.put(self.base + "/api/v1/recognition/subjects/" + subject, data=body, headers=self._subjects_headers()).json()

    def delete_subject(self, subject=""):
        url = self.base + "/api/v1/recognition/subjects" + ("/" + subject if subject else "")
        return requests.delete(url, headers=self._subjects_headers()).json()


def file_part(image):
    """multipart_constructor's get_file: a file's own name and contents, or bytes as `image.jpg`."""
    if isinstance(image, str) and os.path.isfile(image):
        return (os.path.basename(image), open(image, "rb"))
    return ("image.jpg", image)


def read(path):
    with open(path, "rb") as image:
        return image.read()


def viseron_sdk(host, port, key):
    options = {"limit": 0, "det_prob_threshold": 0.8, "prediction_count": 1, "status": False}
    if os.environ.get("VISERON_FACE_PLUGINS"):
        options["face_plugins"] = os.environ["VISERON_FACE_PLUGINS"]
    return Sdk("http://" + host, port, key, options)


def viseron_train(sdk, folder):
    for person in sorted(os.listdir(folder)):
        if person == "unknown":
            continue
        yield {"person": person, "delete_all": sdk.delete_all(person)}
        for name in sorted(os.listdir(os.path.join(folder, person))):
            result = sdk.add(read(os.path.join(folder, person, name)), person)
            yield {"person": person, "image": name, "json": result, "not_suitable": "message" in result}


def viseron_recognize(sdk, threshold, image):
    detections = sdk.recognize(read(image))
    if "result" not in detections:
        return {"json": detections, "known": [], "unknown": []}
    known, unknown = [], []
    for result in detections["result"]:
        subject = result["subjects"][0]
        box = [result["box"][side] for side in ("x_min", "y_min", "x_max", "y_max")]
        if subject["similarity"] >= threshold:
            known.append({"subject": subject["subject"], "box": box, "confidence": subject["similarity"]})
        else:
            unknown.append({"box": box, "confidence": subject["similarity"]})
    return {"json": detections, "known": known, "unknown": unknown}


def viseron_subjects(sdk):
    subjects = sdk.list_subjects()
    if "subjects" not in subjects:
        return {"error": f"Failed to get subjects from CompreFace: {subjects}"}
    return {"json": subjects, "subjects": subjects["subjects"]}


def ha_faces(predictions, detect_only):
    faces = []
    for prediction in predictions:
        if prediction.get("subjects", []) == []:
            name = "unknown"
        else:
            max_confidence = 0
            name = ""
            for subject in prediction["subjects"]:
                if subject["similarity"] > max_confidence:
                    name = subject["subject"]
                    max_confidence = subject["similarity"]
        # The component reads max_confidence here even when subjects was empty (an UnboundLocalError in its own code, for an answer detectd never gives).
        confidence = prediction["box"]["probability"] if detect_only else max_confidence
        faces.append({"name": name, "confidence": round(confidence * 100, 3), "box": prediction["box"]})
    return faces


def ha_process(recognition, detection, detect_only, min_confidence, image):
    answer = detection.detect(read(image)) if detect_only else recognition.recognize(read(image))
    if answer.get("message") == NO_FACE_MESSAGE:
        return {"json": answer, "total_faces": None, "faces": [], "matched": []}
    faces = ha_faces(answer["result"], detect_only)
    matched = [] if detect_only else [face["name"] for face in faces if face["name"] != "unknown" and face["confidence"] >= min_confidence]
    return {"json": answer, "total_faces": len(faces) or None, "faces": faces, "matched": matched}


def ha_teach(recognition, detection, name, images):
    detections = [detection.detect(read(image)) for image in images]
    counts = [len(answer.get("result", [])) for answer in detections]
    usable = [image for image, count in zip(images, counts) if count == 1]
    report = {"detections": detections, "single": counts.count(1), "none": counts.count(0), "multiple": len([count for count in counts if count > 1])}
    if not usable:
        return {"error": f"NoUsablePhotoException: {report}"}
    return {**report, "added": [recognition.add(read(image), name) for image in usable]}


def sdk_calls(host, port, key, person_photo, person_other_photo):
    """Each call of the SDK once, in a user's order, with image paths and every option of recognize."""
    options = {"limit": 0, "det_prob_threshold": 0.8, "prediction_count": 1, "face_plugins": "landmarks,calculator", "status": True}
    sdk = Sdk("http://" + host, port, key, options)
    yield {"call": "subjects.add", "json": sdk.add_subject("amy")}
    added = sdk.add(person_photo, "leonard")
    yield {"call": "face_collection.add", "json": added}
    yield {"call": "face_collection.list", "json": sdk.list_examples()}
    yield {"call": "recognize", "json": sdk.recognize(person_other_photo)}
    yield {"call": "face_collection.verify", "json": sdk.verify_example(person_other_photo, added["image_id"])}
    yield {"call": "detection.detect", "json": sdk.detect(person_other_photo)}
    yield {"call": "verification.verify", "json": sdk.verify(person_photo, person_other_photo)}
    yield {"call": "subjects.update", "json": sdk.update_subject("amy", "amy farrah fowler")}
    yield {"call": "subjects.list", "json": sdk.list_subjects()}
    yield {"call": "face_collection.delete", "json": sdk.delete_example(added["image_id"])}
    yield {"call": "face_collection.delete_all", "json": sdk.delete_all("leonard")}
    yield {"call": "subjects.delete", "json": sdk.delete_subject("amy farrah fowler")}
    yield {"call": "subjects.delete_all", "json": sdk.delete_subject()}


def ha_sdk(host, port, key):
    """The component's CompreFace(ip_address, port): ip_address as configured, with its scheme."""
    return Sdk("http://" + host, port, key)


def run(host, port, command, args):
    if command == "sdk-calls":
        yield from sdk_calls(host, port, *args)
    elif command == "viseron-train":
        yield from viseron_train(viseron_sdk(host, port, args[0]), args[1])
    elif command == "viseron-recognize":
        sdk = viseron_sdk(host, port, args[0])
        for image in args[2:]:
            yield viseron_recognize(sdk, float(args[1]), image)
    elif command == "viseron-subjects":
        yield viseron_subjects(viseron_sdk(host, port, args[0]))
    elif command == "ha-process":
        recognition, detection = ha_sdk(host, port, args[0]), ha_sdk(host, port, args[1])
        for image in args[4:]:
            yield ha_process(recognition, detection, args[2] == "detect", float(args[3]), image)
    elif command == "ha-teach":
        yield ha_teach(ha_sdk(host, port, args[0]), ha_sdk(host, port, args[1]), args[2], args[3:])
    elif command == "ha-list":
        answer = ha_sdk(host, port, args[0]).list_subjects()
        yield {"json": answer, "subjects": answer["subjects"]}
    elif command == "ha-delete":
        yield {"json": ha_sdk(host, port, args[0]).delete_subject(args[1])}
    else:
        raise SystemExit(f"unknown command {command}")


def main():
    host, port, command = sys.argv[1:4]
    calls = run(host, port, command, sys.argv[4:])
    while True:
        try:
            answer = next(calls)
        except StopIteration:
            break
        except (LookupError, NameError, TypeError, ValueError) as error:
            answer = {"error": f"{type(error).__name__}: {error}"}
            print(json.dumps(answer), flush=True)
            break
        print(json.dumps(answer), flush=True)


main()
