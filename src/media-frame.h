/*
 * media-frame.h - a hotspot's coordinates from one media provider's viewer
 * frame into another's (tests/chan/contract/media-rest-contract.md, "The
 * media object"), for the move of a medium to another provider: the same
 * place, in the new frame.
 *
 *  - image (a photo): x, y in 0..1 from the top-left corner, the same at
 *    every provider: unchanged;
 *  - equirect (a panorama): the frame's yaw_origin u is the image column the
 *    viewer's yaw 0 looks at; a yaw y looks at column u + y/360 (mod 1), so
 *    in a frame of origin u' it is (u + y/360 - u') * 360, brought into
 *    (-180, 180]; pitch is unchanged;
 *  - model (a 3D capture): unit_m s is the metres of one unit; up is the
 *    axis that points up (right-handed: with y up, z points at the viewer;
 *    with z up, y points away from it): a point (x, y, z) of a y-up frame is
 *    (x, -z, y) in a z-up one, and (x, y, z) of a z-up frame is (x, z, -y)
 *    in a y-up one; the scale is s / s'.
 *
 * Pure: no database, no I/O. Callers: the media module (the move).
 */
#ifndef FD_MEDIA_FRAME_H
#define FD_MEDIA_FRAME_H

/* A viewer frame as a provider describes it (its JSON "frame" object). */
struct media_frame {
	char system[9];    /* image, equirect, model */
	double yaw_origin; /* equirect: 0 <= u < 1 */
	double unit_m;     /* model: > 0 */
	char up;           /* model: 'y' or 'z' */
};

/* media_frame_read - json (a provider's "frame" object) into f. FD_EINVAL
 * with a reason when it is not one the contract describes. */
int media_frame_read(const char *json, struct media_frame *f);

/* media_frame_own - the frame of a medium of kind (photo, panorama,
 * model) that no provider hosts yet, in which the desk takes a hotspot's
 * place: a photo's image; a panorama's yaw 0 at the image's middle column
 * (yaw_origin 0.5); a 3D capture's own units as metres with y up. */
void media_frame_own(const char *kind, struct media_frame *f);

/* media_frame_same - 1 when a place needs no translation from a to b. */
int media_frame_same(const struct media_frame *a, const struct media_frame *b);

/* media_frame_translate - c (x, y on a photo; yaw, pitch on a panorama;
 * x, y, z in a model) from frame from into frame to, in place. FD_EINVAL
 * when the frames are of different systems or a result falls outside the
 * system's range (a model's coordinate beyond 1e6). */
int media_frame_translate(const struct media_frame *from, const struct media_frame *to,
                          double c[3]);

#endif
