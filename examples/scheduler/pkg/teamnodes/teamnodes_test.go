package teamnodes

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

func node(annotations map[string]string) fwk.NodeInfo {
	info := framework.NewNodeInfo()
	info.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: annotations}})
	return info
}

func pod(labels map[string]string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: labels}}
}

func TestFilter(t *testing.T) {
	plugin, err := New(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	filter := plugin.(*TeamNodes)
	cases := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		fits        bool
	}{
		{"a pod without the label fits anywhere", nil, nil, true},
		{"a labelled pod on a node without the annotation", map[string]string{DefaultPodLabel: "batch"}, nil, false},
		{"a labelled pod on a node of its team", map[string]string{DefaultPodLabel: "batch"}, map[string]string{DefaultNodeAnnotation: "ml, batch"}, true},
		{"a labelled pod on a node of other teams", map[string]string{DefaultPodLabel: "batch"}, map[string]string{DefaultNodeAnnotation: "ml,batch-2"}, false},
		{"an empty team fits no node", map[string]string{DefaultPodLabel: ""}, map[string]string{DefaultNodeAnnotation: ","}, false},
	}
	for _, c := range cases {
		status := filter.Filter(context.Background(), nil, pod(c.labels), node(c.annotations))
		if status.IsSuccess() != c.fits {
			t.Errorf("%s: fits %v, want %v (%v)", c.name, status.IsSuccess(), c.fits, status.AsError())
		}
		if !c.fits && status.Code() != fwk.UnschedulableAndUnresolvable {
			t.Errorf("%s: code %v, want UnschedulableAndUnresolvable", c.name, status.Code())
		}
	}
}

func TestArgs(t *testing.T) {
	raw := &runtime.Unknown{Raw: []byte(`{"podLabel": "team", "nodeAnnotation": "example.com/teams"}`), ContentType: runtime.ContentTypeJSON}
	plugin, err := New(context.Background(), raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	filter := plugin.(*TeamNodes)
	if filter.args.PodLabel != "team" || filter.args.NodeAnnotation != "example.com/teams" {
		t.Fatalf("args %+v", filter.args)
	}
	if !filter.Filter(context.Background(), nil, pod(map[string]string{"team": "a"}), node(map[string]string{"example.com/teams": "a"})).IsSuccess() {
		t.Error("the configured label and annotation are not used")
	}
	if _, err := New(context.Background(), &runtime.Unknown{Raw: []byte(`{"podLabel": 3}`), ContentType: runtime.ContentTypeJSON}, nil); err == nil {
		t.Error("args of the wrong type were accepted")
	}
}
